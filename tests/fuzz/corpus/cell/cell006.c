squares[3] + *second
