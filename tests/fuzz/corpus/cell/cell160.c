a / 3 + b
