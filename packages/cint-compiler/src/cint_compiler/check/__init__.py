"""The checker: names, types and every static rule; it annotates the tree the parser built."""
