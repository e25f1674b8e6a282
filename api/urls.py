"""The REST API's routes, its OpenAPI schema and documentation."""

app_name = "api"
urlpatterns = []
