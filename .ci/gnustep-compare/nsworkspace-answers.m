/* What GNUstep's own NSWorkspace answers (gnustep-gui, Docs/launch-services.md, "Against GNUstep"):
 * for each extension in the application list make_services wrote, a line
 *   extension TAB applications (infoForExtension:, sorted, comma-separated) TAB default
 *   (getBestAppInRole: nil) TAB best editor TAB best viewer
 * with `-` where NSWorkspace answers nothing. Built and run by .ci/gnustep-compare/run. */
#import <Foundation/Foundation.h>
#import <AppKit/NSWorkspace.h>

static NSString *orDash(NSString *value) { return value == nil ? @"-" : value; }

int main(int argc, const char **argv)
{
  /* Debian's gobjc (GCC) has no @autoreleasepool. */
  NSAutoreleasePool *pool = [NSAutoreleasePool new];
  {
    NSString *library = [NSSearchPathForDirectoriesInDomains(NSLibraryDirectory, NSUserDomainMask, YES) lastObject];
    NSString *listPath = [library stringByAppendingPathComponent: @"Services/.GNUstepAppList"];
    NSData *data = [NSData dataWithContentsOfFile: listPath];
    if (data == nil) {
      fprintf(stderr, "no application list at %s: run make_services first\n", [listPath UTF8String]);
      [pool release];
      return 1;
    }
    NSDictionary *list = [NSDeserializer deserializePropertyListFromData: data mutableContainers: NO];
    NSDictionary *extensions = [list objectForKey: @"GSExtensionsMap"];
    NSWorkspace *workspace = [NSWorkspace sharedWorkspace];
    NSEnumerator *each = [[[extensions allKeys] sortedArrayUsingSelector: @selector(compare:)] objectEnumerator];
    NSString *ext;
    while ((ext = [each nextObject]) != nil) {
      NSArray *apps = [[[workspace infoForExtension: ext] allKeys] sortedArrayUsingSelector: @selector(compare:)];
      printf("%s\t%s\t%s\t%s\t%s\n", [ext UTF8String], [[apps componentsJoinedByString: @","] UTF8String],
             [orDash([workspace getBestAppInRole: nil forExtension: ext]) UTF8String],
             [orDash([workspace getBestAppInRole: @"Editor" forExtension: ext]) UTF8String],
             [orDash([workspace getBestAppInRole: @"Viewer" forExtension: ext]) UTF8String]);
    }
  }
  [pool release];
  return 0;
}
