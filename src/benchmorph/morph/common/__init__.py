"""What several transform families share: derived variants, prompt surgery, the LLM judge, scenarios."""
