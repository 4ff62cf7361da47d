"""The security headers every response carries: one table, applied by the app to its own
answers and by the server to the few it writes itself."""

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'self'; frame-ancestors 'none'")

# The powerful features the page never uses, denied to it and to anything it might embed.
# Only names Chromium knows (it warns of an unknown one in the console on every page). The
# clipboard is left at its default, this origin: "Copy link" and "Copy" write to it.
DENIED_FEATURES = ("accelerometer", "camera", "display-capture", "encrypted-media",
                   "geolocation", "gyroscope", "hid", "idle-detection", "magnetometer",
                   "microphone", "midi", "payment", "publickey-credentials-get",
                   "screen-wake-lock", "serial", "usb", "xr-spatial-tracking")
PERMISSIONS_POLICY = ", ".join(f"{feature}=()" for feature in DENIED_FEATURES)

# Scripts, styles and fonts from this origin only; no framing, sniffing or referrer; no
# window of another origin keeps a handle on the page (opener), and no other origin may
# embed its files or answers (an <img> or <script> of another site reading /api/…).
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
    "Permissions-Policy": PERMISSIONS_POLICY,
}


def security_headers(response):
    """Set every header of SECURITY_HEADERS on ``response`` (a Flask after_request hook)."""
    response.headers.update(SECURITY_HEADERS)
    return response
