"""microgpt (Karpathy, 2026) on micrograd's engine: a GPT in scalars.

``model``: the GPT written over ``Value`` (``linear``, ``softmax``, ``rmsnorm``,
``GPT.gpt(token, pos, keys, values)``); ``data``: the names and the tokenizer (the
packaged names file: the 1990 US census first names); ``train``: microgpt's loop
(``Run``: one name a step, Adam) and sampling; ``weights``: the trained model as a file.
``micrograd gpt`` is the command line; docs/gpt.md tells the whole story. Standard
library only, like the engine.
"""
