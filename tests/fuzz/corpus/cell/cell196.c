answer + 1
