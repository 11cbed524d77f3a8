fact(20)
