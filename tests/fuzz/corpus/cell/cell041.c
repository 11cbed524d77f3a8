v
