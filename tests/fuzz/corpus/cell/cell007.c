second[2]
