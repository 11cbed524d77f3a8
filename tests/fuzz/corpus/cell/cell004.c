letter
