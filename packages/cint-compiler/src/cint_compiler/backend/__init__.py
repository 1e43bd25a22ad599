"""Back ends: code generators from the checked program."""
