"""The boxes' pages: the dealer's at the console (``console``), the pit's (``sessions``)."""
