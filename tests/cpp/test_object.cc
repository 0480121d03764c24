#include <gtest/gtest.h>
#include <mxffi/mxffi.h>

#include <atomic>

#include "test_util.h"

namespace {

std::atomic<int> g_deleted{0};

// A three-level hierarchy registered at run time: Animal <- Dog <- Puppy; Cat beside Dog.
class AnimalObj : public mxffi::Object {
 public:
  int64_t legs = 4;
  mxffi::String name{"animal"};
  ~AnimalObj() { ++g_deleted; }
  static constexpr const char* _type_key = "test.Animal";
  static constexpr bool _type_final = false;
  MXFFI_DECLARE_OBJECT_INFO(AnimalObj, mxffi::Object);
};
class DogObj : public AnimalObj {
 public:
  double bark_volume = 1.5;
  static constexpr const char* _type_key = "test.Dog";
  static constexpr bool _type_final = false;
  MXFFI_DECLARE_OBJECT_INFO(DogObj, AnimalObj);
};
class PuppyObj : public DogObj {
 public:
  static constexpr const char* _type_key = "test.Puppy";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_OBJECT_INFO(PuppyObj, DogObj);
};
class CatObj : public AnimalObj {
 public:
  static constexpr const char* _type_key = "test.Cat";
  static constexpr bool _type_final = true;
  MXFFI_DECLARE_OBJECT_INFO(CatObj, AnimalObj);
};

class Animal : public mxffi::ObjectRef {
 public:
  MXFFI_DEFINE_OBJECT_REF_METHODS(Animal, mxffi::ObjectRef, AnimalObj);
};
class Dog : public Animal {
 public:
  MXFFI_DEFINE_OBJECT_REF_METHODS(Dog, Animal, DogObj);
};

MXFFI_STATIC_INIT_BLOCK() {
  mxffi::reflection::ObjectDef<AnimalObj>()
      .def_ro("legs", &AnimalObj::legs, "number of legs")
      .def_ro("name", &AnimalObj::name);
  mxffi::reflection::ObjectDef<DogObj>().def_ro("bark_volume", &DogObj::bark_volume);
}

TEST(Object, IsInstanceAcrossThreeLevels) {
  auto puppy = mxffi::make_object<PuppyObj>();
  EXPECT_TRUE(puppy->IsInstance<mxffi::Object>());
  EXPECT_TRUE(puppy->IsInstance<AnimalObj>());
  EXPECT_TRUE(puppy->IsInstance<DogObj>());
  EXPECT_TRUE(puppy->IsInstance<PuppyObj>());
  EXPECT_FALSE(puppy->IsInstance<CatObj>());

  auto dog = mxffi::make_object<DogObj>();
  EXPECT_TRUE(dog->IsInstance<AnimalObj>());
  EXPECT_FALSE(dog->IsInstance<PuppyObj>());  // a parent is not its child
  auto cat = mxffi::make_object<CatObj>();
  EXPECT_FALSE(cat->IsInstance<DogObj>());
  EXPECT_FALSE(cat->IsInstance<PuppyObj>());
  EXPECT_FALSE(cat->IsInstance<mxffi::ArrayObj>());
  auto animal = mxffi::make_object<AnimalObj>();
  EXPECT_FALSE(animal->IsInstance<DogObj>());

  EXPECT_GE(PuppyObj::RuntimeTypeIndex(), kMXFFIDynObjectBegin);
  EXPECT_EQ(puppy->GetTypeKey(), "test.Puppy");
}

TEST(Object, TypeKeysRoundTripThroughTheAbi) {
  int32_t index = -1;
  ASSERT_EQ(MXFFITypeKey2Index("test.Dog", &index), 0);
  EXPECT_EQ(index, DogObj::RuntimeTypeIndex());
  const char* key = nullptr;
  ASSERT_EQ(MXFFITypeIndex2Key(index, &key), 0);
  EXPECT_STREQ(key, "test.Dog");
  ASSERT_EQ(MXFFITypeKey2Index("mxffi.Array", &index), 0);
  EXPECT_EQ(index, kMXFFIArray);

  EXPECT_EQ(MXFFITypeKey2Index("test.NoSuchType", &index), -1);
  const char *kind, *message;
  MXFFIErrorGetLast(&kind, &message, nullptr);
  EXPECT_STREQ(kind, "KeyError");
  EXPECT_NE(std::string(message).find("test.NoSuchType"), std::string::npos);
}

TEST(Object, RefDowncastIsChecked) {
  Animal a(mxffi::make_object<DogObj>());
  EXPECT_TRUE(a.as<Dog>().defined());
  Animal c(mxffi::make_object<CatObj>());
  EXPECT_FALSE(c.as<Dog>().defined());
  // Through a value cell: a Cat is not a Dog.
  mxffi::Any cell = c;
  EXPECT_FALSE(cell.try_cast<Dog>().has_value());
  EXPECT_TRUE(cell.try_cast<Animal>().has_value());
}

TEST(Object, FreedExactlyOnce) {
  g_deleted = 0;
  {
    auto p = mxffi::make_object<AnimalObj>();
    EXPECT_EQ(p.use_count(), 1);
    mxffi::ObjectPtr<AnimalObj> q = p;
    EXPECT_EQ(p.use_count(), 2);
    mxffi::Any a{Animal(p)};
    mxffi::Any b = a;
    EXPECT_EQ(p.use_count(), 4);
    EXPECT_EQ(g_deleted, 0);
  }
  EXPECT_EQ(g_deleted, 1);

  // Through the C ABI: IncRef/Free pairs, the last Free deletes.
  g_deleted = 0;
  auto* raw = mxffi::make_object<AnimalObj>().release();
  MXFFIObjectHandle h = mxffi::details::ObjectUnsafe::Header(raw);
  ASSERT_EQ(MXFFIObjectIncRef(h), 0);
  int32_t tindex = -1;
  ASSERT_EQ(MXFFIObjectGetTypeIndex(h, &tindex), 0);
  EXPECT_EQ(tindex, AnimalObj::RuntimeTypeIndex());
  MXFFIObjectFree(h);
  EXPECT_EQ(g_deleted, 0);
  MXFFIObjectFree(h);
  EXPECT_EQ(g_deleted, 1);
  EXPECT_EQ(MXFFIObjectFree(nullptr), 0);
  EXPECT_EQ(MXFFIObjectIncRef(nullptr), -1);
}

TEST(Object, ReflectedFieldsReadByNameAndIndex) {
  auto dog = mxffi::make_object<DogObj>();
  dog->legs = 3;
  mxffi::Any obj = Dog(dog);
  mxffi::Function names = mxffi::Function::GetGlobalRequired("object.field_names");
  auto list = names(DogObj::RuntimeTypeIndex()).cast<mxffi::Array<mxffi::String>>();
  ASSERT_EQ(list.size(), 3);
  EXPECT_EQ(list[0], "legs");  // the parent's fields first
  EXPECT_EQ(list[1], "name");
  EXPECT_EQ(list[2], "bark_volume");

  mxffi::Function get_field = mxffi::Function::GetGlobalRequired("object.get_field");
  EXPECT_EQ(get_field(obj, 0).cast<int64_t>(), 3);
  EXPECT_DOUBLE_EQ(get_field(obj, 2).cast<double>(), 1.5);
  mxffi::Function get_attr = mxffi::Function::GetGlobalRequired("object.get_attr");
  EXPECT_EQ(get_attr(obj, "name").cast<mxffi::String>(), "animal");
  try {
    get_attr(obj, "wings");
    FAIL() << "expected AttributeError";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "AttributeError");
    EXPECT_EQ(e.message(), "object.get_attr: 'test.Dog' object has no attribute 'wings'");
  }
  try {
    get_field(obj, 3);
    FAIL() << "expected IndexError";
  } catch (const mxffi::Error& e) {
    EXPECT_EQ(e.kind(), "IndexError");
  }
}

}  // namespace
