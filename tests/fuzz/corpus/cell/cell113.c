later(3)
