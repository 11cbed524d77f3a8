sqrt(b)
