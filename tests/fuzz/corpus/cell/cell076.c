(char)'\n'
