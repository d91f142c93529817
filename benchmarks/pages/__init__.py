"""One generator module per documentation page (``doc_figures.py`` runs them)."""
