length_of(nothing)
