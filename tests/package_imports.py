"""What an import in the package's source names, read without importing anything: a
module's dotted name from its file, and the absolute name of a relative import."""


def module_name(path, src):
    """The dotted name of the module in file ``path`` under ``src`` (a package's
    ``__init__.py``: the package)."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def absolute(here, is_package, module, level):
    """The absolute dotted name ``from <level dots><module> import ...`` means in the
    module ``here`` (``is_package``: ``here`` is a package's ``__init__``)."""
    if level == 0:
        return module
    parts = here.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([module] if module else []))
