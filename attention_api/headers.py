"""The security headers every response carries: one table, applied by the app to its own
answers and by the server to the few it writes itself."""

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

# Scripts, styles and fonts from this origin only; no framing, sniffing or referrer.
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}


def security_headers(response):
    """Set every header of SECURITY_HEADERS on ``response`` (a Flask after_request hook)."""
    response.headers.update(SECURITY_HEADERS)
    return response
