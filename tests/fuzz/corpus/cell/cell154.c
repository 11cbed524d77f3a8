make(3).data[2] + sq.n
