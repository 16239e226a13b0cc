"""The vocabulary every layer shares: the registry of extension points, progress and notices."""
