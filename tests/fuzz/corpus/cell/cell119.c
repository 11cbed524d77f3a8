strlen(nothing)
