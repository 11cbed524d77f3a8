name
