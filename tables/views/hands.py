"""Pages of the tables: hands."""

urlpatterns = []
