# contrib — targets of this directory
