"""The one error type the engine raises for input a person must fix."""


class AttentionInputError(ValueError):
    """Input that cannot be computed, with the field it concerns.

    ``field`` names the offending input the way the request format spells it,
    e.g. ``"W_Q[1][0]"`` (0-based indices), ``"tokens"`` or ``None`` when no
    single field is to blame (an overflow of a product, say). ``str(error)`` is
    a sentence a student can act on.
    """

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
