"""The REST API (Django REST framework) for tablets, the cage and the auditors' tools."""
