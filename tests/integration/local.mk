# tests/integration — targets of this directory
