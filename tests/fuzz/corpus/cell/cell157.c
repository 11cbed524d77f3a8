a / b
