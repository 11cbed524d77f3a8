length_of("four")
