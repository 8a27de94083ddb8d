# plugins — targets of this directory
