"""Pages of the tables: console."""

urlpatterns = []
