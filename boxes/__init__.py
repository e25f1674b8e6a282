"""The table's boxes: table buy-ins into the drop box at the console, the two-person
counts of the drop, cagnotte and tips boxes at a session's close, their variances against
the hands and the buy-ins (exceptions until a supervisor explains them), the cagnotte
register per table and session and the daily control register."""
