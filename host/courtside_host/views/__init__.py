"""The laptop's faces of a game: the one renderer (``render``) and what stands on it: the
terminal, the monitor, the SVG timeline. (The web page's view runs on any Python, in the
page too: ``courtside_follow.page``.)
"""
