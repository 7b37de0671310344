"""Self-contained web pages: escaping of user strings and the calculator page."""
