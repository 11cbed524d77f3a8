sq(2)
