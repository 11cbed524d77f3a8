total + k
