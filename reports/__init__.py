"""Reports for the auditors of the bank's takings: shift and bank-rotation reports,
computed by Celery tasks, stored, reconciled against the ledger."""
