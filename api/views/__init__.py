"""The API's views: tables, shifts and hands; hand records; the ledger; reports; docs."""
