"""How attention runs: the key/value cache, FlashAttention's tiles, the cost of n²."""
