/** The flags that say what a campaign sends and how its columns fill it, as commander gives them (`send`, `retarget`). */
export interface MessageFlags {
  template?: string;
  language?: string;
  text?: string;
  previewUrl?: boolean;
  params?: string[];
  param: Record<string, string>;
  headerTextColumn?: string;
  headerImageColumn?: string;
  buttonUrlColumn?: string[];
}
