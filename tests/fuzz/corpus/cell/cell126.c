divide(1)
