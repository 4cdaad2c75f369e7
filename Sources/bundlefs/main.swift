import CatalogueCommands

QueryOnlyMain.run()
