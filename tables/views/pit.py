"""Pages of the tables: pit."""

urlpatterns = []
