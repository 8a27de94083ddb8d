# etc — targets of this directory
