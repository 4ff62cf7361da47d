"""The app's shared HTTP parts: errors as JSON, security headers, gzip, orjson."""
