"""annotate"""
