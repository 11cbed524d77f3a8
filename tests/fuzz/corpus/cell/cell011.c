count
