from_int()
