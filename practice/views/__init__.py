"""Views of the practice site, split by area: auth, expenses, api, lab."""
