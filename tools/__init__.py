"""Tools that make the package's data files; not part of the installed package."""
