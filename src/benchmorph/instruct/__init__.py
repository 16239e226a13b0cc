"""CTF-Instruct: sensitivity training data from an existing code instruction dataset.

The second half of the CTF paper (section 4, appendix A), as library functions that print nothing:

    read_instructions(path)                       # Alpaca, messages/ShareGPT, Evol-Instruct, OSS-Instruct
    make_pairs(samples, generator, cache, engine) # a counterfactual instruction + solution per sample
    decontaminate(pairs, against)                 # drop benchmark duplicates (10-grams, embeddings)
    score_pairs(pairs, scorer)                    # difficulty 1-5 on both sides; Table 2
    export_dataset(pairs, base, fmt, out)         # merged training data (alpaca, messages, hf)
    run_recipe(...)                               # the whole recipe with a manifest

The layer sits between ``morph`` and ``evaluation``: it uses the models layer (LLM cache,
sanitizer, embeddings), the engine and the CTF distances, and nothing above it.
"""
