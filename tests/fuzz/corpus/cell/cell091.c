helper(41)
