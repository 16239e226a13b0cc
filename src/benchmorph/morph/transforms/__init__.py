"""Transform families: one package each; families import only ``morph.common`` and lower layers."""
