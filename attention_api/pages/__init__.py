"""The HTML pages, their assets, the API's description (OpenAPI) and /health."""
