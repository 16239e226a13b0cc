"""The report's sections, one module each; a new module here (or a plug-in's) adds a section to the page.

A module registers a :class:`~benchmorph.report.section.Section` in
``report.section.SECTIONS``; the page shows every registered section whose
``render`` returns HTML, in ``order``, with a link in the page's navigation.
"""
