import BundleFSCommands

BundleFSMain.run()
